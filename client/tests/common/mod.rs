//! What several of the client's test binaries share: a CA and a
//! `localhost` certificate it issued, and the three runtimes an async
//! check runs on. Each binary uses part of it.
#![allow(dead_code)]

use std::future::Future;
use std::sync::Arc;

use snodo_client::rustls::pki_types::CertificateDer;

/// A CA, and a server certificate for `localhost` it issued.
pub struct Pki {
    pub ca_pem: String,
    pub leaf: CertificateDer<'static>,
    pub key: Vec<u8>,
}

/// A new CA (named `name`) and its `localhost` certificate.
pub fn pki(name: &str) -> Pki {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca.distinguished_name.push(rcgen::DnType::CommonName, name);
    let ca = ca.self_signed(&ca_key).unwrap();
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec![String::from("localhost")])
        .unwrap()
        .signed_by(&leaf_key, &ca, &ca_key)
        .unwrap();
    Pki {
        ca_pem: ca.pem(),
        leaf: leaf.der().clone(),
        key: leaf_key.serialize_der(),
    }
}

pub fn on_tokio<F: Future>(run: impl FnOnce(snodo_tokio::Tokio) -> F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(run(snodo_tokio::Tokio))
}

pub fn on_smol<F: Future>(run: impl FnOnce(snodo_smol::Smol) -> F) -> F::Output {
    let ex = Arc::new(smol::Executor::new());
    smol::block_on(ex.run(run(snodo_smol::Smol(ex.clone()))))
}

pub fn on_threads<F: Future>(run: impl FnOnce(snodo_blocking::Threads) -> F) -> F::Output {
    snodo_blocking::block_on(run(snodo_blocking::Threads::new(1).unwrap()))
}

/// A module of three tests, the generic async check `$check` on each
/// runtime.
#[allow(unused_macros)]
macro_rules! on_each_runtime {
    ($check:ident) => {
        mod $check {
            #[test]
            fn on_tokio() {
                $crate::common::on_tokio(super::$check::<snodo_tokio::Tokio>)
            }

            #[test]
            fn on_smol() {
                $crate::common::on_smol(super::$check::<snodo_smol::Smol>)
            }

            #[test]
            fn on_threads() {
                $crate::common::on_threads(super::$check::<snodo_blocking::Threads>)
            }
        }
    };
}
