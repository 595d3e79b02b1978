// The surfaces' name for the storable-input check, which lives in the engine so services (streamed imports) use it too.
export { unstorable, type Unstorable } from '../engine/storable.js';
