CREATE TABLE "solana_wallet_cursors" (
	"chain" text NOT NULL,
	"owner" text NOT NULL,
	"mint" text NOT NULL,
	"cursor" text,
	"searched_slot" bigint,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "solana_wallet_cursors_chain_owner_mint_pk" PRIMARY KEY("chain","owner","mint")
);
