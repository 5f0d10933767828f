ALTER TYPE "public"."webhook_delivery_status" ADD VALUE 'held' BEFORE 'pending';--> statement-breakpoint
CREATE TABLE "webhook_event_sequences" (
	"charge_id" text PRIMARY KEY NOT NULL,
	"last_sequence" integer NOT NULL
);
--> statement-breakpoint
DROP INDEX "webhook_events_charge_idx";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "charge_id" text;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "event_sequence" integer;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "sequence" integer;--> statement-breakpoint
ALTER TABLE "webhook_event_sequences" ADD CONSTRAINT "webhook_event_sequences_charge_id_charges_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."charges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_chain_idx" ON "webhook_deliveries" USING btree ("endpoint_id","charge_id","event_sequence") WHERE "webhook_deliveries"."status" not in ('succeeded', 'failed', 'canceled');--> statement-breakpoint
CREATE INDEX "webhook_events_charge_sequence_idx" ON "webhook_events" USING btree ("charge_id","sequence");--> statement-breakpoint
-- Events from before sequence numbers: numbered per charge in the order they were created.
UPDATE "webhook_events" AS e SET "sequence" = s.n
FROM (SELECT "id", row_number() OVER (PARTITION BY "charge_id" ORDER BY "created_at", "id") AS n FROM "webhook_events" WHERE "charge_id" IS NOT NULL) AS s
WHERE e."id" = s."id";--> statement-breakpoint
INSERT INTO "webhook_event_sequences" ("charge_id", "last_sequence")
SELECT "charge_id", max("sequence") FROM "webhook_events" WHERE "charge_id" IS NOT NULL GROUP BY "charge_id";--> statement-breakpoint
UPDATE "webhook_deliveries" AS d SET "charge_id" = e."charge_id", "event_sequence" = e."sequence"
FROM "webhook_events" AS e WHERE e."id" = d."event_id" AND e."charge_id" IS NOT NULL;--> statement-breakpoint
-- Wakes the outbox relay (lib/webhooks/relay.ts) at the commit of every transaction that emitted an event;
-- PostgreSQL sends one notification per transaction however many rows it inserted.
CREATE FUNCTION "webhook_events_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('webhook_events', '');
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "webhook_events_notify" AFTER INSERT ON "webhook_events" FOR EACH STATEMENT EXECUTE FUNCTION "webhook_events_notify"();
