//! The store contract (`tasks/tests/contract/mod.rs`, the one suite every
//! store passes) for the database stores: SQLite on a fresh file, and
//! PostgreSQL in a fresh schema of the database named by
//! `SNODO_TEST_POSTGRES` (for example
//! `postgres://postgres@127.0.0.1:5432/test`); without it the PostgreSQL
//! tests say they are skipped and pass.

#[macro_use]
#[path = "../../tasks/tests/contract/mod.rs"]
mod contract;

#[allow(unused_imports)]
use contract::{unique, Kit, Place};
#[allow(unused_imports)]
use std::sync::Arc;

#[cfg(feature = "sqlite")]
mod sqlite_kit {
    use super::*;
    use snodo_tasks::Store;
    use snodo_tasks_sql::SqliteStore;

    pub const KIT: Kit = Kit {
        fresh: || {
            let dir = std::env::temp_dir().join(unique("snodo-contract-sqlite"));
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            let at = dir.join("tasks.db").to_string_lossy().into_owned();
            Ok(Place::new(at, move || {
                let _ = std::fs::remove_dir_all(&dir);
            }))
        },
        open: |at| -> Arc<dyn Store> {
            Arc::new(SqliteStore::open(at).expect("the SQLite store opens"))
        },
    };
}

#[cfg(feature = "sqlite")]
use sqlite_kit::KIT as SQLITE_KIT;
#[cfg(feature = "sqlite")]
store_contract!(sqlite, SQLITE_KIT, durable);

#[cfg(feature = "postgres")]
mod postgres_kit {
    use super::*;
    use snodo_tasks::Store;
    use snodo_tasks_sql::PgStore;

    /// The database the PostgreSQL tests use, if any.
    pub const VAR: &str = "SNODO_TEST_POSTGRES";

    /// Drop a test's schema, on a connection of its own.
    fn drop_schema(url: &str, schema: &str) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        rt.block_on(async {
            let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                .await
                .expect("connects to drop the test schema");
            let task = tokio::spawn(conn);
            client
                .batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"))
                .await
                .expect("the test schema is dropped");
            drop(client);
            let _ = task.await;
        });
    }

    pub const KIT: Kit = Kit {
        fresh: || {
            let url = std::env::var(VAR).map_err(|_| format!("skipped: {VAR} not set"))?;
            let schema = unique("snodo_test");
            let at = format!("{url}#{schema}");
            Ok(Place::new(at, move || drop_schema(&url, &schema)))
        },
        open: |at| -> Arc<dyn Store> {
            let (url, schema) = at.rsplit_once('#').expect("url#schema");
            Arc::new(PgStore::connect_with(url, schema, 4).expect("the PostgreSQL store opens"))
        },
    };
}

#[cfg(feature = "postgres")]
use postgres_kit::KIT as POSTGRES_KIT;
#[cfg(feature = "postgres")]
store_contract!(postgres, POSTGRES_KIT, durable);
