/**
 * The job's seeded random source. It lives in domain/ (it imports nothing) so that projections
 * can draw from it too (the bootstrap of aggregate.csv); trainers and optimizers import it here.
 */
export * from "../domain/rng.js";
