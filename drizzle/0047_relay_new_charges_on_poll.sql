-- PostgreSQL serialises the commits of transactions that ran NOTIFY (one global lock at commit), and
-- charge.created is written at the rate charges are created: with a notification per new charge,
-- createCharge reached ~270/s and ~0.65–0.9 ms of PostgreSQL CPU per charge on 32 connections; without,
-- ~550–800/s and ~0.36–0.58 ms (issue 27; lib/webhooks/queue.ts). So charge.created no longer wakes the
-- relay at commit: the relay's one-second poll takes it. Every other event (status changes, test events,
-- in a transaction of its own and far rarer) still notifies at its commit, as before.
DROP TRIGGER "webhook_events_notify" ON "webhook_events";--> statement-breakpoint
CREATE OR REPLACE FUNCTION "webhook_events_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM "new_events" WHERE "type" <> 'charge.created') THEN
    PERFORM pg_notify('webhook_events', '');
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "webhook_events_notify" AFTER INSERT ON "webhook_events" REFERENCING NEW TABLE AS "new_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "webhook_events_notify"();
