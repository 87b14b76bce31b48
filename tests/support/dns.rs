//! A tiny authoritative DNS server for tests (UDP on 127.0.0.1): answers TXT queries from
//! the records a test sets (DKIM keys, SPF), NXDOMAIN for other TXT names, and an empty
//! answer for every other type. The server under test is pointed at it with
//! `DJAMBI_MAIL_DNS`. Written by hand from RFC 1035 so the records a test supplies are
//! exactly what goes over the wire.

#![allow(dead_code)]

use std::collections::HashMap;
use std::net::{SocketAddr, UdpSocket};
use std::sync::{Arc, Mutex};

type Records = Arc<Mutex<HashMap<String, Vec<String>>>>;

pub struct TestDns {
    pub addr: SocketAddr,
    records: Records,
    /// Every name asked for, lower case (to see what the server looked up).
    pub asked: Arc<Mutex<Vec<String>>>,
}

impl TestDns {
    pub fn start() -> TestDns {
        let socket = UdpSocket::bind("127.0.0.1:0").expect("bind the test DNS server");
        let addr = socket.local_addr().unwrap();
        let records: Records = Arc::default();
        let asked: Arc<Mutex<Vec<String>>> = Arc::default();
        let (r, a) = (records.clone(), asked.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 1500];
            loop {
                let Ok((n, peer)) = socket.recv_from(&mut buf) else {
                    continue;
                };
                if let Some(answer) = answer(&buf[..n], &r, &a) {
                    let _ = socket.send_to(&answer, peer);
                }
            }
        });
        TestDns {
            addr,
            records,
            asked,
        }
    }

    /// Adds a TXT record.
    pub fn txt(&self, name: &str, value: &str) {
        self.records
            .lock()
            .unwrap()
            .entry(name.trim_end_matches('.').to_ascii_lowercase())
            .or_default()
            .push(value.to_string());
    }
}

/// The answer to one query, if it is one.
fn answer(q: &[u8], records: &Records, asked: &Mutex<Vec<String>>) -> Option<Vec<u8>> {
    if q.len() < 12 || q[2] & 0x80 != 0 {
        return None;
    }
    // The question: labels, then type and class.
    let mut i = 12;
    let mut labels = Vec::new();
    loop {
        let len = *q.get(i)? as usize;
        i += 1;
        if len == 0 {
            break;
        }
        if len > 63 {
            return None;
        }
        labels.push(String::from_utf8_lossy(q.get(i..i + len)?).to_ascii_lowercase());
        i += len;
    }
    let qtype = u16::from_be_bytes([*q.get(i)?, *q.get(i + 1)?]);
    let question_end = i + 4;
    q.get(..question_end)?;
    let name = labels.join(".");
    asked.lock().unwrap().push(name.clone());
    const TXT: u16 = 16;
    let found = records.lock().unwrap().get(&name).cloned();
    let (rcode, answers) = match (qtype, found) {
        (TXT, Some(values)) => (0u8, values),
        (TXT, None) => (3, Vec::new()),
        _ => (0, Vec::new()),
    };
    let mut out = Vec::with_capacity(512);
    out.extend_from_slice(&q[..2]); // id
    out.push(0x84 | (q[2] & 0x01)); // QR, AA, RD as asked
    out.push(rcode);
    out.extend_from_slice(&1u16.to_be_bytes());
    out.extend_from_slice(&(answers.len() as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&q[12..question_end]);
    for value in answers {
        let mut rdata = Vec::new();
        for chunk in value.as_bytes().chunks(255) {
            rdata.push(chunk.len() as u8);
            rdata.extend_from_slice(chunk);
        }
        out.extend_from_slice(&[0xC0, 12]); // the name: a pointer to the question's
        out.extend_from_slice(&TXT.to_be_bytes());
        out.extend_from_slice(&1u16.to_be_bytes()); // IN
        out.extend_from_slice(&300u32.to_be_bytes());
        out.extend_from_slice(&(rdata.len() as u16).to_be_bytes());
        out.extend_from_slice(&rdata);
    }
    Some(out)
}
