// Pieces the reply schemas of several modules' routes share (each route file holds its own replies).
import { z } from 'zod';

export const time = z.string().meta({ format: 'date-time' });
export const names = z.array(z.string());
export const revision = z.number().int().meta({ description: 'Read with consistency=at_least_as_fresh&revision= to see this change' });
export const edges = z.record(z.string(), z.array(z.string()));
/** What a state import or a schema import did to each kind of thing, by name. */
export const changes = z.object({ created: names, updated: names, unchanged: names });
/** A reply that is not JSON (text, a page); its content types are the route's `http.produces`. */
export const text = z.string();
