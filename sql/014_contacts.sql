-- 014_contacts.sql - issue 10 (contact forces as arrows): the contact points
-- of a result at its pose frames, so that a viewer draws each contact force
-- where it acts.
-- contacts: records of 10 float64 little-endian each, per touching point at
-- a frame: frame index, pair (index in the model's expanded contact pairs),
-- body (spec order), the other body (-1: ground; it takes the opposite
-- force), the body's material point (world x y z) and the force on that body
-- there (world x y z; z = 0 in 2-D): the pair's body B, or body A with the
-- opposite force when B is the ground (common/mbs/mbs.h).
-- contact_frames: the first frames whose points are all in contacts (a run
-- with more points than MBS_CONTACT_RECS_MAX has none for the later frames).
-- Both null for models without contacts and for rows before this migration.
ALTER TABLE poses ADD COLUMN IF NOT EXISTS contact_frames integer CHECK (contact_frames >= 0);
ALTER TABLE poses ADD COLUMN IF NOT EXISTS contacts bytea;
