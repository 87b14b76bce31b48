"""Reads one raw mail on standard input and checks it with Python's strict e-mail parser
(any defect raises): MIME-Version 1.0, text parts with a charset, a text/plain part.
Prints {"text": ..., "html": ..., "subject": ...} (the decoded parts and Subject) as JSON."""
import email
import email.policy
import json
import sys

raw = sys.stdin.buffer.read()
msg = email.message_from_bytes(raw, policy=email.policy.strict)
assert msg["MIME-Version"] == "1.0", f"MIME-Version: {msg['MIME-Version']!r}"
for name in ("From", "To", "Subject", "Date", "Message-ID"):
    assert msg[name], f"no {name}"
parts = {}
for part in msg.walk():
    if part.is_multipart():
        continue
    ctype = part.get_content_type()
    assert ctype.startswith("text/"), ctype
    charset = part.get_content_charset()
    assert charset and charset.lower() == "utf-8", f"{ctype} charset {charset!r}"
    cte = part.get("Content-Transfer-Encoding", "7bit").lower()
    assert cte in ("7bit", "8bit", "quoted-printable", "base64"), cte
    for defect in part.defects:
        raise AssertionError(f"defect {defect!r}")
    parts[ctype] = part.get_content()
assert "text/plain" in parts, f"no text/plain part: {list(parts)}"
if msg.get_content_type() == "multipart/alternative":
    assert "text/html" in parts
print(json.dumps({"text": parts["text/plain"], "html": parts.get("text/html"),
                  "subject": str(msg["Subject"])}))
