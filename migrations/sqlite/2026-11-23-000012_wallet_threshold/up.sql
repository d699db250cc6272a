-- Why new sales are paused: 'insufficient_balance' (upstream refused an order for lack of
-- credit) or 'below_threshold' (the owner chose to stop selling below the low-balance
-- threshold). NULL while sales run. Each reason has its own rule for resuming.
ALTER TABLE wallet ADD COLUMN pause_reason TEXT;

-- When a balance read first showed this top-up's credit (a transaction whose reference is the
-- checkout session). NULL while the payment is pending.
ALTER TABLE topups ADD COLUMN confirmed_at_ms BIGINT;
