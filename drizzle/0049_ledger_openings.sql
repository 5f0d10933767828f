CREATE TABLE "ledger_openings" (
	"chain" text NOT NULL,
	"address" text NOT NULL,
	"token" text NOT NULL,
	"block_number" bigint NOT NULL,
	"balance_base_units" numeric(78, 0) NOT NULL,
	"ledger_base_units" numeric(78, 0) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_openings_chain_address_token_pk" PRIMARY KEY("chain","address","token")
);
