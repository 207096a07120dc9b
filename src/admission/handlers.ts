import type { Context } from "hono";
import type { AppEnv } from "../env";
import type { AppRouteHandler } from "../http/types";
import { need } from "../configuration";
import { publicKeySet } from "../ticket-image";
import { admit } from "./admit";
import { attendanceOn } from "./attendance";
import { gateConfigFrom } from "./gate";
import type { GateContext } from "./judging";
import { conflictsOn, judgeUpload } from "./offline";
import { revocationsAfter } from "./revocations";
import type * as routes from "./routes";

/** The keys, the museum's rules and clock, and the calling gate, as judging a scan needs them. */
function gateContextOf(c: Context<AppEnv>): GateContext {
  const { settings } = c.var.config;
  const { codeKeys, signingKeys } = need(c.var.config, "codeKeys", "signingKeys");
  return {
    codeKeys,
    keys: signingKeys,
    timeZone: settings.MUSEUM_TIMEZONE,
    earlyMinutes: settings.ADMISSION_EARLY_MINUTES,
    gate: c.var.principal.name,
    now: new Date(),
  };
}

export const admitTicket: AppRouteHandler<typeof routes.admitTicket> = async (c) => {
  const { admission, replayed } = await admit(c.var.db, c.req.valid("json").code, {
    ...gateContextOf(c),
    idempotencyKey: c.req.valid("header")["idempotency-key"],
  });
  c.header("Cache-Control", "no-store");
  if (replayed) c.header("Idempotent-Replayed", "true");
  return c.json(admission, 201);
};

export const getAttendanceSummary: AppRouteHandler<typeof routes.getAttendanceSummary> = async (c) => {
  const date = c.req.valid("query").date ?? c.var.config.museumNow().today;
  c.header("Cache-Control", "no-store");
  return c.json(await attendanceOn(c.var.db, date), 200);
};

export const listRevocations: AppRouteHandler<typeof routes.listRevocations> = async (c) => {
  const today = c.var.config.museumNow().today;
  c.header("Cache-Control", "no-store");
  return c.json(await revocationsAfter(c.var.db, c.req.valid("query").since, today), 200);
};

export const getGateKeys: AppRouteHandler<typeof routes.getGateKeys> = async (c) => {
  c.header("Cache-Control", "no-store");
  return c.json(publicKeySet(need(c.var.config, "codeKeys").codeKeys), 200);
};

export const getGateConfig: AppRouteHandler<typeof routes.getGateConfig> = async (c) => {
  const { settings } = c.var.config;
  const today = c.var.config.museumNow().today;
  c.header("Cache-Control", "no-store");
  return c.json(await gateConfigFrom(c.var.db, today, { timeZone: settings.MUSEUM_TIMEZONE, earlyMinutes: settings.ADMISSION_EARLY_MINUTES }), 200);
};

export const uploadOfflineScans: AppRouteHandler<typeof routes.uploadOfflineScans> = async (c) => {
  const results = await judgeUpload(c.var.db, c.req.valid("json"), gateContextOf(c));
  c.header("Cache-Control", "no-store");
  return c.json({ results }, 200);
};

export const listAdmissionConflicts: AppRouteHandler<typeof routes.listAdmissionConflicts> = async (c) => {
  const date = c.req.valid("query").date ?? c.var.config.museumNow().today;
  c.header("Cache-Control", "no-store");
  return c.json(await conflictsOn(c.var.db, date), 200);
};
