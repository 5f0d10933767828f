// /api/* that no route serves — 404 not_found in the API envelope, whatever the method.
import { notFoundRoute } from '@/lib/api/methods';

export const GET = notFoundRoute;
export const POST = notFoundRoute;
export const PUT = notFoundRoute;
export const PATCH = notFoundRoute;
export const DELETE = notFoundRoute;
export const OPTIONS = notFoundRoute;
