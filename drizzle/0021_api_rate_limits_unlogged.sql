-- The merchant API's per-key counters live for one minute and are updated on every API call. As an
-- UNLOGGED table they write no WAL, so a call's counter update commits without waiting for a disk
-- flush (and holds the key's row lock for microseconds, not for the flush). The price: after a
-- PostgreSQL crash or a fail-over to a replica the counters start again from zero, which a rate
-- limit can afford. Charges, events and the sign-in limits (rate_limits) stay logged.
ALTER TABLE "api_rate_limits" SET UNLOGGED;
