// Jest global setup: placeholder replaced below.
export default async function setup() {}
