//! Choices read from a byte string: the fuzzer's input, or a seeded
//! pseudo-random stream in the property tests. The same bytes always make
//! the same choices, and an exhausted source answers zeros, so every input
//! decodes to some valid sequence (a fuzzer's mutations stay meaningful).

/// A reader of choices.
pub struct Source<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Source<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Source { data, pos: 0 }
    }

    /// How many bytes the choices so far consumed.
    pub fn consumed(&self) -> usize {
        self.pos.min(self.data.len())
    }

    /// Whether every byte was consumed.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    pub fn u16(&mut self) -> u16 {
        u16::from(self.byte()) << 8 | u16::from(self.byte())
    }

    pub fn u32(&mut self) -> u32 {
        u32::from(self.u16()) << 16 | u32::from(self.u16())
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        if n <= 256 {
            usize::from(self.byte()) % n
        } else {
            (self.u32() as usize) % n
        }
    }

    /// True with probability about `num / den`.
    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    pub fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[self.below(items.len())]
    }

    /// Up to `max` raw bytes.
    pub fn bytes(&mut self, max: usize) -> &'a [u8] {
        let want = self.below(max + 1);
        let start = self.pos.min(self.data.len());
        let end = (start + want).min(self.data.len());
        self.pos = start + want;
        &self.data[start..end]
    }
}

/// `len` bytes of a SplitMix64 stream seeded with `seed`: the property
/// tests' inputs, reproducible from the seed alone.
pub fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        out.extend_from_slice(&z.to_le_bytes());
    }
    out.truncate(len);
    out
}
