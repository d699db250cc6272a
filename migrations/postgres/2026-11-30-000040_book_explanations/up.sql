-- The owner's explanations of mismatches in the books, one per line of the reconciliation,
-- keyed by the line's stable identity (`order:ID`, `transaction:ID`, `topup:SESSION`,
-- `purchase:ID`; see `books::reconcile::Line::key`). An explained mismatch is still listed,
-- with its note, but no longer counts as open. Saving again replaces the note.
CREATE TABLE book_explanations (
    line_key TEXT PRIMARY KEY NOT NULL,
    note TEXT NOT NULL,
    explained_by TEXT NOT NULL,
    explained_at_ms BIGINT NOT NULL
);
