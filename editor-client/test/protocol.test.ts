import { describe, expect, it } from "vitest";
import { CLIENT_PROTOCOL, ERROR_CODES, ErrorCode, SCHEMA_PROTOCOL_VERSION } from "../src/protocol";

// protocol.ts is generated from protocol.json (tests/test_protocol_ts.py
// fails when it drifts); these pin the error names and wire.ts' version to it.
describe("the wire names follow the generated schema", () => {
  it("names exactly the error codes the schema lists", () => {
    expect(Object.values(ErrorCode).sort()).toEqual([...ERROR_CODES].sort());
  });

  it("speaks the schema's protocol major", () => {
    expect(CLIENT_PROTOCOL.major).toBe(SCHEMA_PROTOCOL_VERSION);
  });
});
