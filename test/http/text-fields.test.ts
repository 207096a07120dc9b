// Free-text fields (src/http/openapi.ts textField) refuse control and
// bidirectional-control characters, on create and on PATCH.
import { describe, expect, it } from "vitest";
import { api, createEvent, eventBody, expectValidationError } from "../support/helpers";

describe("text fields refuse control and bidirectional-control characters", () => {
  const REFUSED_EVERYWHERE = ["\u0000", "\u0007", "\u001b", "\u007f", "\u0085", "\u009f", "\u202a", "\u202e", "\u2066", "\u2069", "\r"];
  const SINGLE_LINE_ONLY = ["\n", "\t"];
  const FINE = ["Zoë's Café ☕", "Mañana 🎉", "אירוע", "Tour (R&D) – 2nd"];

  for (const field of ["name", "location"]) {
    it.each([...REFUSED_EVERYWHERE, ...SINGLE_LINE_ONLY])(`event ${field} refuses U+%#`, async (char) => {
      await expectValidationError(
        await api("/v1.1/special-events", { method: "POST", json: eventBody({ [field]: `Tour ${char}gnp.exe` }) }),
        field,
      );
    });
  }

  it.each(REFUSED_EVERYWHERE)("eventDescription refuses control %#", async (char) => {
    await expectValidationError(
      await api("/v1.1/special-events", { method: "POST", json: eventBody({ eventDescription: `a${char}b` }) }),
      "eventDescription",
    );
  });

  it("eventDescription keeps line feeds and tabs; names keep ordinary Unicode", async () => {
    for (const name of FINE) {
      const created = await createEvent({ name, eventDescription: "Line one\nLine two\twith a tab" });
      expect(created.name).toBe(name);
      expect(created.eventDescription).toBe("Line one\nLine two\twith a tab");
    }
  });

  it.each([...REFUSED_EVERYWHERE, ...SINGLE_LINE_ONLY])("an exception reason refuses U+%#", async (char) => {
    const res = await api("/v1.1/museum-hours/exceptions/2031-12-25", {
      method: "PUT",
      json: { closed: true, reason: `Holiday${char}` },
    });
    await expectValidationError(res, "reason");
  });

  it("PATCH refuses them too", async () => {
    const created = await createEvent();
    await expectValidationError(
      await api(`/v1.1/special-events/${created.eventId}`, { method: "PATCH", json: { name: "Tour \u202egnp.exe" } }),
      "name",
    );
  });
});
