import { describe, expect, it } from "vitest";
import { usdForPeople } from "../../../src/codec/usd-for-people.js";

describe("usdForPeople", () => {
  it("prints four decimals, without float noise or an exponent", () => {
    expect(usdForPeople(0.00015209999999999998)).toBe("$0.0002");
    expect(usdForPeople(8.847e-4)).toBe("$0.0009");
    expect(usdForPeople(0.0123)).toBe("$0.0123");
    expect(usdForPeople(12.34567)).toBe("$12.3457");
    expect(usdForPeople(0)).toBe("$0.0000");
  });

  it("never shows a little spent as nothing, nor a refund as a charge", () => {
    expect(usdForPeople(4e-6)).toBe("<$0.0001");
    expect(usdForPeople(-4e-6)).toBe(">-$0.0001");
    expect(usdForPeople(-0.25)).toBe("-$0.2500");
    expect(usdForPeople(-0)).toBe("$0.0000");
  });
});
