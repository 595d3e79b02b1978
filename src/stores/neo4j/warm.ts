// Plans every statement the service sends, as a start does (NEO4J_WARM_PLANS): the plain ones and the spliced ones.
import type { Driver } from 'neo4j-driver';
import { warmNeo4j } from './connection.js';
import { putEdgesStatements } from './graph.js';
import { splicedStatements } from './index-store.js';

/** The statements spliced before any model is known (subject lists, edge writes), planned beside the plain ones. */
export const warmedSpliced = () => [...splicedStatements(), ...putEdgesStatements()];

/** Plans them all; how many planned. */
export const warmAll = (driver: Driver) => warmNeo4j(driver, warmedSpliced());
