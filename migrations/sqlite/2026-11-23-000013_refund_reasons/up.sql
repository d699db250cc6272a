-- What a refund tells the customer, and whether the shop kept the wholesale cost.
-- cause: 'delivery_failed' (the supplier could not provide the eSIM), 'on_request' (the shop
-- refunded on the customer's or its own request), 'payment_problem' (the payment itself was
-- wrong). keeps_cost: an upstream order exists and was paid from the wallet, so the refund is
-- a loss in the books (the console's "refund and keep the cost").
ALTER TABLE refunds ADD COLUMN cause TEXT NOT NULL DEFAULT 'delivery_failed'
    CHECK (cause IN ('delivery_failed', 'on_request', 'payment_problem'));
ALTER TABLE refunds ADD COLUMN keeps_cost BOOLEAN NOT NULL DEFAULT FALSE;
