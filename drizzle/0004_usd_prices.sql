CREATE TABLE "usd_prices" (
	"price_id" text PRIMARY KEY NOT NULL,
	"usd" numeric(38, 18) NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL
);
