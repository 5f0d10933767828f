CREATE TABLE "swap_funding_signals" (
	"charge_id" text NOT NULL,
	"source" text NOT NULL,
	"due_at" timestamp with time zone DEFAULT now() NOT NULL,
	"handled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "swap_funding_signals_charge_id_source_pk" PRIMARY KEY("charge_id","source")
);
--> statement-breakpoint
ALTER TABLE "swap_funding_signals" ADD CONSTRAINT "swap_funding_signals_charge_id_charges_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."charges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "swap_funding_signals_due_idx" ON "swap_funding_signals" USING btree ("due_at") WHERE "swap_funding_signals"."handled_at" is null;--> statement-breakpoint
CREATE INDEX "onramp_orders_swap_funding_done_idx" ON "onramp_orders" USING btree ("updated_at") WHERE "onramp_orders"."purpose" = 'swap_funding' and "onramp_orders"."status" = 'completed';