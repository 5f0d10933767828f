ALTER TYPE "public"."onramp_order_purpose" ADD VALUE 'charge_minimum';--> statement-breakpoint
ALTER TABLE "onramp_orders" ADD COLUMN "charge_transfer_id" text;--> statement-breakpoint
ALTER TABLE "onramp_orders" ADD COLUMN "charge_payment_error" text;--> statement-breakpoint
ALTER TABLE "onramp_orders" ADD CONSTRAINT "onramp_orders_charge_transfer_id_outbound_transfers_id_fk" FOREIGN KEY ("charge_transfer_id") REFERENCES "public"."outbound_transfers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "onramp_orders_charge_transfer_idx" ON "onramp_orders" USING btree ("charge_transfer_id");