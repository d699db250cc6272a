-- "Lost your link?" finds a customer's purchases by their address in any case: an index on
-- the lowercased address, so the lookup does not read every purchase.
CREATE INDEX purchases_email_lower ON purchases (lower(email));
