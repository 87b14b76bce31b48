//! Settings of notification delivery (webhooks, e-mail, the delivery worker, vacations).
//!
//! They are declared and parsed with the others, in [`crate::config`] (its `notify` module,
//! into [`crate::config::Config::notify`]); this path stays for the notifications code.
//! The dependency goes one way: notifications use config, config uses nothing of the crate.

pub use crate::config::notify::*;
