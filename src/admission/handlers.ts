import type { AppRouteHandler } from "../http/types";
import { todayIn } from "../platform/dates";
import { settingsOf } from "../settings";
import { codeKeysOf, publicKeySet, signingKeysOf } from "../ticket-image";
import { admit } from "./admit";
import { attendanceOn } from "./attendance";
import { gateConfigFrom } from "./gate";
import { conflictsOn, judgeUpload } from "./offline";
import { revocationsAfter } from "./revocations";
import type * as routes from "./routes";

export const admitTicket: AppRouteHandler<typeof routes.admitTicket> = async (c) => {
  const { admission, replayed } = await admit(c.var.db, c.req.valid("json").code, {
    codeKeys: codeKeysOf(c.env),
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

export const listRevocations: AppRouteHandler<typeof routes.listRevocations> = async (c) => {
  const today = todayIn(settingsOf(c.env).MUSEUM_TIMEZONE);
  c.header("Cache-Control", "no-store");
  return c.json(await revocationsAfter(c.var.db, c.req.valid("query").since, today), 200);
};

export const getGateKeys: AppRouteHandler<typeof routes.getGateKeys> = async (c) => {
  c.header("Cache-Control", "no-store");
  return c.json(publicKeySet(codeKeysOf(c.env)), 200);
};

export const getGateConfig: AppRouteHandler<typeof routes.getGateConfig> = async (c) => {
  const settings = settingsOf(c.env);
  const today = todayIn(settings.MUSEUM_TIMEZONE);
  c.header("Cache-Control", "no-store");
  return c.json(await gateConfigFrom(c.var.db, today, { timeZone: settings.MUSEUM_TIMEZONE, earlyMinutes: settings.ADMISSION_EARLY_MINUTES }), 200);
};

export const uploadOfflineScans: AppRouteHandler<typeof routes.uploadOfflineScans> = async (c) => {
  const results = await judgeUpload(c.var.db, c.req.valid("json"), {
    codeKeys: codeKeysOf(c.env),
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
