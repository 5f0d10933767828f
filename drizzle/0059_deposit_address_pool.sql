CREATE TABLE "deposit_address_pool" (
	"chain" text NOT NULL,
	"address" text NOT NULL,
	"merchant_id" text NOT NULL,
	"mode" "api_key_mode" NOT NULL,
	"derivation_index" integer NOT NULL,
	"last_deposit_address_id" text NOT NULL,
	"free_since" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "deposit_address_pool_chain_address_pk" PRIMARY KEY("chain","address")
);
--> statement-breakpoint
DROP INDEX "deposit_addresses_address_idx";--> statement-breakpoint
DROP INDEX "deposit_addresses_index_idx";--> statement-breakpoint
ALTER TABLE "deposit_addresses" ADD COLUMN "released_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "deposit_addresses" ADD COLUMN "release_check_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "deposit_address_pool" ADD CONSTRAINT "deposit_address_pool_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deposit_address_pool" ADD CONSTRAINT "deposit_address_pool_last_deposit_address_id_deposit_addresses_id_fk" FOREIGN KEY ("last_deposit_address_id") REFERENCES "public"."deposit_addresses"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deposit_address_pool_draw_idx" ON "deposit_address_pool" USING btree ("merchant_id","mode","chain","free_since");--> statement-breakpoint
CREATE UNIQUE INDEX "deposit_addresses_open_address_idx" ON "deposit_addresses" USING btree ("chain","address") WHERE "deposit_addresses"."released_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "deposit_addresses_open_index_idx" ON "deposit_addresses" USING btree ("family","derivation_index") WHERE "deposit_addresses"."released_at" is null;--> statement-breakpoint
CREATE INDEX "deposit_addresses_release_idx" ON "deposit_addresses" USING btree (coalesce("release_check_at", "watch_until")) WHERE "deposit_addresses"."released_at" is null and "deposit_addresses"."family" = 'evm';--> statement-breakpoint
CREATE INDEX "deposit_addresses_address_idx" ON "deposit_addresses" USING btree ("chain","address","created_at");--> statement-breakpoint
CREATE INDEX "deposit_addresses_index_idx" ON "deposit_addresses" USING btree ("family","derivation_index");