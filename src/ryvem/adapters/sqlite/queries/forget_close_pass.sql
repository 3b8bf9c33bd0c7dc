-- forget_close_pass: Close every forget pass before the transaction commits.
DELETE FROM forget_pass;
