DROP INDEX deliveries_due_mail_idx;
DROP INDEX deliveries_due_http_idx;
