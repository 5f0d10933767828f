ALTER TYPE "public"."transfer_purpose" ADD VALUE 'gas_topup';--> statement-breakpoint
ALTER TABLE "wallets" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "wallets" ADD COLUMN "merchant_id" text;--> statement-breakpoint
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "wallets_merchant_family_idx" ON "wallets" USING btree ("merchant_id","family");--> statement-breakpoint
CREATE INDEX "outbound_transfers_charge_idx" ON "outbound_transfers" USING btree ("charge_id","purpose");--> statement-breakpoint
CREATE INDEX "outbound_transfers_open_idx" ON "outbound_transfers" USING btree ("status") WHERE "outbound_transfers"."status" in ('signed', 'broadcast');--> statement-breakpoint
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_one_owner" CHECK (("wallets"."user_id" is null) <> ("wallets"."merchant_id" is null));