CREATE TABLE "merchant_tokens" (
	"merchant_id" text NOT NULL,
	"chain" text NOT NULL,
	"address" text NOT NULL,
	"symbol" text NOT NULL,
	"name" text NOT NULL,
	"decimals" integer NOT NULL,
	"is_custom" boolean DEFAULT false NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "merchant_tokens_merchant_id_chain_address_pk" PRIMARY KEY("merchant_id","chain","address")
);
--> statement-breakpoint
ALTER TABLE "merchant_tokens" ADD CONSTRAINT "merchant_tokens_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;