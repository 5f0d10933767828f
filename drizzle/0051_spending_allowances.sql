CREATE TABLE "spending_allowances" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"chain" text NOT NULL,
	"token_address" text NOT NULL,
	"token_symbol" text NOT NULL,
	"token_decimals" integer NOT NULL,
	"amount_per_day_base_units" numeric(78, 0) NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "charges" ADD COLUMN "allowance_id" text;--> statement-breakpoint
ALTER TABLE "spending_allowances" ADD CONSTRAINT "spending_allowances_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spending_allowances" ADD CONSTRAINT "spending_allowances_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "spending_allowances_user_merchant_idx" ON "spending_allowances" USING btree ("user_id","merchant_id");--> statement-breakpoint
ALTER TABLE "charges" ADD CONSTRAINT "charges_allowance_id_spending_allowances_id_fk" FOREIGN KEY ("allowance_id") REFERENCES "public"."spending_allowances"("id") ON DELETE no action ON UPDATE no action;