//! How many streams may be open: per account (or client address) and per instance. A
//! [`Permit`] holds one place and gives it back when dropped (the stream ended).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Why a stream was not opened.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// The caller already has `limit` streams open.
    #[error("at most {limit} streams may be open at once per account or client")]
    TooManyForCaller { limit: usize },
    /// This instance already serves `limit` streams.
    #[error("this server instance already serves {limit} streams")]
    TooManyOnInstance { limit: usize },
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

#[derive(Debug, Default)]
struct Counts {
    total: usize,
    per_caller: HashMap<String, usize>,
}

/// The limits and the open streams they count.
#[derive(Debug, Clone)]
pub struct StreamLimits {
    per_caller: usize,
    per_instance: usize,
    counts: Arc<Mutex<Counts>>,
}

impl StreamLimits {
    pub fn new(per_caller: usize, per_instance: usize) -> StreamLimits {
        StreamLimits {
            per_caller,
            per_instance,
            counts: Arc::default(),
        }
    }

    /// Open streams in all.
    pub fn open(&self) -> usize {
        self.counts.lock().unwrap_or_else(|p| p.into_inner()).total
    }

    /// One more place for `who`, or why not (the instance limit is checked first).
    pub fn admit(&self, who: &str) -> Result<Permit, LiveError> {
        let mut c = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        if c.total >= self.per_instance {
            return Err(LiveError::TooManyOnInstance {
                limit: self.per_instance,
            });
        }
        let mine = c.per_caller.get(who).copied().unwrap_or(0);
        if mine >= self.per_caller {
            return Err(LiveError::TooManyForCaller {
                limit: self.per_caller,
            });
        }
        c.total += 1;
        c.per_caller.insert(who.to_string(), mine + 1);
        Ok(Permit {
            who: who.to_string(),
            counts: self.counts.clone(),
        })
    }
}

/// One open stream's place; given back on drop.
#[derive(Debug)]
pub struct Permit {
    who: String,
    counts: Arc<Mutex<Counts>>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut c = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        c.total = c.total.saturating_sub(1);
        if let Some(n) = c.per_caller.get_mut(&self.who) {
            *n -= 1;
            if *n == 0 {
                c.per_caller.remove(&self.who);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_counted_and_given_back() {
        let limits = StreamLimits::new(2, 3);
        let a1 = limits.admit("a").unwrap();
        let _a2 = limits.admit("a").unwrap();
        assert!(matches!(
            limits.admit("a").unwrap_err(),
            LiveError::TooManyForCaller { limit: 2 }
        ));
        let _b1 = limits.admit("b").unwrap();
        assert!(matches!(
            limits.admit("c").unwrap_err(),
            LiveError::TooManyOnInstance { limit: 3 }
        ));
        drop(a1);
        assert_eq!(limits.open(), 2);
        let _a3 = limits.admit("a").unwrap();
        assert_eq!(limits.open(), 3);
    }
}
