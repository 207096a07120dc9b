import type { AppRouteHandler } from "../http/types";
import { todayIn } from "../platform/dates";
import { settingsOf } from "../settings";
import { signingKeysOf } from "../ticket-image";
import { admit } from "./admit";
import { attendanceOn } from "./attendance";
import { conflictsOn, judgeUpload } from "./offline";
import type * as routes from "./routes";

export const admitTicket: AppRouteHandler<typeof routes.admitTicket> = async (c) => {
  const { admission, replayed } = await admit(c.var.db, c.req.valid("json").code, {
    keys: signingKeysOf(c.env),
    timeZone: settingsOf(c.env).MUSEUM_TIMEZONE,
    earlyMinutes: settingsOf(c.env).ADMISSION_EARLY_MINUTES,
    gate: c.var.principal.name,
    now: new Date(),
    idempotencyKey: c.req.valid("header")["idempotency-key"],
  });
  c.header("Cache-Control", "no-store");
  if (replayed) c.header("Idempotent-Replayed", "true");
  return c.json(admission, 201);
};

export const getAttendanceSummary: AppRouteHandler<typeof routes.getAttendanceSummary> = async (c) => {
  const date = c.req.valid("query").date ?? todayIn(settingsOf(c.env).MUSEUM_TIMEZONE);
  c.header("Cache-Control", "no-store");
  return c.json(await attendanceOn(c.var.db, date), 200);
};

export const uploadOfflineScans: AppRouteHandler<typeof routes.uploadOfflineScans> = async (c) => {
  const results = await judgeUpload(c.var.db, c.req.valid("json"), {
    keys: signingKeysOf(c.env),
    timeZone: settingsOf(c.env).MUSEUM_TIMEZONE,
    earlyMinutes: settingsOf(c.env).ADMISSION_EARLY_MINUTES,
    gate: c.var.principal.name,
    now: new Date(),
  });
  c.header("Cache-Control", "no-store");
  return c.json({ results }, 200);
};

export const listAdmissionConflicts: AppRouteHandler<typeof routes.listAdmissionConflicts> = async (c) => {
  const date = c.req.valid("query").date ?? todayIn(settingsOf(c.env).MUSEUM_TIMEZONE);
  c.header("Cache-Control", "no-store");
  return c.json(await conflictsOn(c.var.db, date), 200);
};
