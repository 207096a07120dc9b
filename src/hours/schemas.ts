import { z } from "@hono/zod-openapi";
import { type FieldRule, withFieldRules } from "../http/field-rules";
import { DateSchema, TimeSchema, textField, wholeNumber } from "../http/openapi";
import { PaginationQuerySchema } from "../http/pagination";
import { minutesOf } from "./calendar";

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

// Zod still runs this refinement when a time is malformed; that time already
// has its own error, so only well-formed pairs are compared.
const opensBeforeClose = (hours: { timeOpen: string; timeClose: string }) =>
  !TIME.test(hours.timeOpen) || !TIME.test(hours.timeClose) || hours.timeOpen < hours.timeClose;

const MuseumDailyHoursSchema = z
  .object({
    date: DateSchema.openapi({ description: "Date the operating hours apply to.", example: "2024-12-31" }),
    timeOpen: TimeSchema.openapi({
      description: "Time the museum opens on a specific date. Uses 24 hour time format (`HH:mm`).",
    }),
    timeClose: TimeSchema.openapi({
      description: "Time the museum closes on a specific date. Uses 24 hour time format (`HH:mm`).",
      example: "18:00",
    }),
  })
  .openapi("MuseumDailyHours", { description: "Daily operating hours for the museum." });

export const GetMuseumHoursResponseSchema = z
  .array(MuseumDailyHoursSchema)
  .openapi("GetMuseumHoursResponse", { description: "List of museum operating hours for consecutive days." });

export const GetMuseumHoursQuerySchema = z
  .object({
    startDate: DateSchema.optional().openapi({
      param: {
        name: "startDate",
        in: "query",
        description: "Starting date to retrieve future operating hours from. Defaults to today's date (museum time zone).",
      },
    }),
  })
  .extend(PaginationQuerySchema.shape);

const MAX_CAPACITY = 100_000;

/** The optional limits of an open day (docs/capacity.md). */
const DayLimitsShape = {
  capacity: wholeNumber(1, MAX_CAPACITY, "The most general tickets for the day (no limit when left out).", 500).optional(),
  entrySlotMinutes: wholeNumber(
    5,
    240,
    "Timed entry: slots start at `timeOpen` and every `entrySlotMinutes` after it, each ending by `timeClose`; at least one slot must fit. Comes with `slotCapacity`.",
    30,
  ).optional(),
  slotCapacity: wholeNumber(1, MAX_CAPACITY, "Timed entry: the most general tickets for each slot. Comes with `entrySlotMinutes`.", 40).optional(),
};
const LIMIT_KEYS = ["capacity", "entrySlotMinutes", "slotCapacity"] as const;

/** Timed entry comes whole: both fields or neither. */
const TIMED_ENTRY_RULES: FieldRule[] = [
  { requiredWith: "slotCapacity", other: "entrySlotMinutes", message: "Required with entrySlotMinutes." },
  { requiredWith: "entrySlotMinutes", other: "slotCapacity", message: "Required with slotCapacity." },
];

/** Timed entry leaves the day at least one slot. */
function checkSlotFits(plan: { timeOpen?: string; timeClose?: string; entrySlotMinutes?: number }, ctx: z.RefinementCtx) {
  const { timeOpen, timeClose, entrySlotMinutes } = plan;
  if (timeOpen && timeClose && TIME.test(timeOpen) && TIME.test(timeClose) && Number.isInteger(entrySlotMinutes)) {
    if (minutesOf(timeOpen) + entrySlotMinutes! > minutesOf(timeClose)) {
      ctx.addIssue({
        code: "custom",
        path: ["entrySlotMinutes"],
        message: `Leaves no slot between ${timeOpen} and ${timeClose}.`,
      });
    }
  }
}

const TimeOpenSchema = TimeSchema.openapi({ description: "Opening time, `HH:mm`." });
const TimeCloseSchema = TimeSchema.openapi({ description: "Closing time, `HH:mm`: after `timeOpen`.", example: "18:00" });

const OpeningHoursSchema = withFieldRules(z.strictObject({ timeOpen: TimeOpenSchema, timeClose: TimeCloseSchema, ...DayLimitsShape }), TIMED_ENTRY_RULES)
  .superRefine((plan, ctx) => {
    if (!opensBeforeClose(plan)) ctx.addIssue({ code: "custom", path: ["timeClose"], message: "timeOpen must be before timeClose." });
    checkSlotFits(plan, ctx);
  })
  .openapi("OpeningHours", { description: "A weekday's hours and its optional limits." });

export const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"] as const;

/** The weekly schedule: every weekday named, `null` for a closed day. */
export const WeeklyScheduleSchema = z
  .strictObject(
    Object.fromEntries(WEEKDAYS.map((day) => [day, OpeningHoursSchema.nullable()])) as Record<
      (typeof WEEKDAYS)[number],
      z.ZodNullable<typeof OpeningHoursSchema>
    >,
  )
  .openapi("WeeklySchedule", {
    description: "Regular opening hours for each day of the week; `null` means closed.",
    example: {
      sunday: null,
      monday: { timeOpen: "09:00", timeClose: "18:00" },
      tuesday: { timeOpen: "09:00", timeClose: "18:00" },
      wednesday: { timeOpen: "09:00", timeClose: "18:00" },
      thursday: { timeOpen: "09:00", timeClose: "18:00" },
      friday: { timeOpen: "10:00", timeClose: "16:00" },
      saturday: null,
    },
  });
export type WeeklyScheduleBody = z.infer<typeof WeeklyScheduleSchema>;

const ReasonSchema = textField(200, { description: "Why the day differs (shown to staff).", example: "New Year's Day" });

/** A closed day has no hours and no limits; special hours have both times. */
const CLOSURE_RULES: FieldRule[] = [
  {
    variants: "closed",
    cases: [
      {
        is: true,
        refused: Object.fromEntries(["timeOpen", "timeClose", ...LIMIT_KEYS].map((key) => [key, "Must be left out when closed is true."])),
      },
      { is: false, required: { timeOpen: "Required when closed is false.", timeClose: "Required when closed is false." } },
    ],
  },
  ...TIMED_ENTRY_RULES,
];

export const PutHoursExceptionRequestSchema = withFieldRules(
  z.strictObject({
    closed: z.boolean({ error: "Must be true or false." }).openapi({
      description:
        "`true`: the museum is closed that day; `timeOpen`, `timeClose` and the limits must be left out. `false`: special hours; `timeOpen` and `timeClose` are required.",
    }),
    timeOpen: TimeOpenSchema.optional(),
    timeClose: TimeCloseSchema.optional(),
    ...DayLimitsShape,
    reason: ReasonSchema.optional(),
  }),
  CLOSURE_RULES,
)
  .superRefine((body, ctx) => {
    if (body.closed) return;
    if (body.timeOpen && body.timeClose && !opensBeforeClose({ timeOpen: body.timeOpen, timeClose: body.timeClose })) {
      ctx.addIssue({ code: "custom", path: ["timeClose"], message: "timeOpen must be before timeClose." });
    }
    checkSlotFits(body, ctx);
  })
  .openapi("PutHoursExceptionRequest", {
    description: "A closure (`closed: true`) or special hours for one date.",
    example: { closed: true, reason: "New Year's Day" },
  });

export const HoursExceptionSchema = z
  .object({
    date: DateSchema,
    closed: z.boolean(),
    timeOpen: TimeSchema.optional(),
    timeClose: TimeSchema.optional(),
    ...DayLimitsShape,
    reason: z.string().optional(),
  })
  .openapi("HoursException");

export const HoursExceptionListSchema = z.array(HoursExceptionSchema).openapi("HoursExceptionList");

export const ExceptionDateParamsSchema = z.object({
  date: DateSchema.openapi({
    param: { name: "date", in: "path", description: "The date the exception is for (`YYYY-MM-DD`)." },
    example: "2026-12-25",
  }),
});

export const ListHoursExceptionsQuerySchema = z.object({
  startDate: DateSchema.optional().openapi({
    param: { name: "startDate", in: "query", description: "First date (default: today, museum time zone)." },
  }),
  endDate: DateSchema.optional().openapi({
    param: { name: "endDate", in: "query", description: "Last date, not before `startDate` (default: one year after `startDate`)." },
  }),
});
