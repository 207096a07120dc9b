// Test-only keys (never a deployed Worker's): public in the repository.
/** The test-only Ed25519 code keys: TICKET_CODE_KEYS of the tests' Worker (vitest.config.ts). T1 signs; T2 is published and signs only from 2999. */
export const TEST_CODE_KEYS = [
  {
    kid: "T1",
    kty: "OKP",
    crv: "Ed25519",
    x: "flaSZCZjIt7lggJQ090s79PwzeLp6yXyvBlwvWP6IV0",
    d: "TxkLqpCw4h7MNwogm5ROPEb_Aac5P9da7ZPJzlZi6p0",
    signsFrom: "2020-01-01T00:00:00Z",
  },
  {
    kid: "T2",
    kty: "OKP",
    crv: "Ed25519",
    x: "Z4TTcqyvnAIEMWHaGiCQ5TlayL_TC3WcL0l219-7gVg",
    d: "tKqzCoJz6BWDH7sYKqh_yIU-loM8RkPdgyZXdv7fIIs",
    signsFrom: "2999-01-01T00:00:00Z",
  },
];
