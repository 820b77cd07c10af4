-- 006_poses.sql - issue 10: the body poses of every result, so that every
-- job can be animated without declaring channels.
--
-- frames: nframe x (1 + cardinality(bodies) x npose) float64 little-endian,
-- row-major, time first; a frame is taken at every few samples (its time is
-- a sample's time) and at the last one, at most 256 frames and 65536 values
-- per job (common/mbs/mbs.h).  A pose is, per body: 2-D (npose 3) x y angle
-- of the centre of mass and the body frame; 3-D (npose 7) x y z w qx qy qz.
-- Results of workers that send no poses have no row here.
CREATE TABLE IF NOT EXISTS poses (
    job_id  bigint PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
    bodies  text[] NOT NULL,
    npose   integer NOT NULL CHECK (npose IN (3, 7)),
    nframe  integer NOT NULL CHECK (nframe >= 0),
    frames  bytea NOT NULL
);
