import { z } from "@hono/zod-openapi";
import { priceField, textField } from "../http/openapi";

const CATEGORY_ID_MESSAGE = "Must be 1 to 20 characters of a-z, 0-9 and -.";
/** A category id's form: the id's `pattern`, and the `propertyNames` of a map keyed by category. */
export const CATEGORY_ID = /^[a-z0-9-]{1,20}$/;

/** A category's id: chosen by the museum, never changed. */
export const CategoryIdSchema = z
  .string({ error: CATEGORY_ID_MESSAGE })
  .regex(CATEGORY_ID, { error: CATEGORY_ID_MESSAGE })
  .openapi("CategoryId", {
    description: "A ticket category's id: 1 to 20 characters of `a-z`, `0-9` and `-`, chosen by the museum and never changed.",
    example: "child",
  });

/** The OCTO booking standard's unit types, which a reseller maps a category to. */
const UNIT_TYPES = ["ADULT", "YOUTH", "CHILD", "INFANT", "FAMILY", "SENIOR", "STUDENT", "MILITARY", "OTHER"] as const;
export type UnitType = (typeof UNIT_TYPES)[number];

const UnitTypeSchema = z
  .enum(UNIT_TYPES, { error: `Must be one of ${UNIT_TYPES.join(", ")}.` })
  .openapi("UnitType", { description: "What the category is in the OCTO booking standard's terms (for resellers).", example: "CHILD" });

const CategoryNameSchema = textField(100, { description: "The category's name, printed on the ticket.", example: "Child (under 12)" });
const CategoryPriceSchema = priceField("The general-admission price in this category, at most two decimals.", 12.5);
const AccompaniedSchema = z.boolean({ error: "Must be true or false." }).openapi({
  description:
    "A ticket of this category is sold only in an order with a companion: a ticket of a category that is not accompanied, for the same date, event (or general) and entry time.",
});

export const PutCategoryRequestSchema = z
  .strictObject({
    name: CategoryNameSchema,
    price: CategoryPriceSchema,
    accompanied: AccompaniedSchema.optional().default(false),
    default: z.boolean({ error: "Must be true or false." }).optional().openapi({
      description:
        "`true` makes it the default (what a purchase naming no category is; the former default loses it); left out: as it was (not the default, on create). `false` on the default is 409.",
    }),
    unitType: UnitTypeSchema.optional().default("OTHER"),
  })
  .openapi("PutTicketCategoryRequest", { description: "A ticket category, created or replaced as a whole." });
export type CategoryInput = z.output<typeof PutCategoryRequestSchema>;

export const CategorySchema = z
  .object({
    categoryId: CategoryIdSchema,
    name: CategoryNameSchema,
    price: CategoryPriceSchema,
    default: z.boolean().openapi({ description: "What a purchase naming no category is; exactly one category is." }),
    accompanied: AccompaniedSchema,
    unitType: UnitTypeSchema,
    retired: z.literal(true).optional().openapi({ description: "Retired: no longer sold (listed with `includeRetired=true` only)." }),
  })
  .openapi("TicketCategory", { description: "A ticket category and its general-admission price." });
export type Category = z.infer<typeof CategorySchema>;

export const CategoryListSchema = z.array(CategorySchema).openapi("TicketCategoryList", { description: "Categories by id." });

export const CategoryIdParamsSchema = z.object({
  categoryId: CategoryIdSchema.openapi({ param: { name: "categoryId", in: "path" } }),
});

export const ListCategoriesQuerySchema = z.object({
  includeRetired: z
    .enum(["true", "false"], { error: "Must be true or false." })
    .optional()
    .transform((value) => value === "true")
    .openapi({
      param: { name: "includeRetired", in: "query", description: "`true`: the retired categories too (`retired: true`)." },
      type: "string",
      enum: ["true", "false"],
    }),
});
