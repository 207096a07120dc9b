/**
 * The faces the card is drawn with, as resvg gets them: Inter Regular and Bold
 * for its text, JetBrains Mono Bold for the confirmation code (a monospaced
 * face tells `0` from `o` and `1` from `l`, and gives every character the same
 * width). All three are OFL and bundled as TTF (wrangler: `*.ttf` as data;
 * resvg-wasm has no system fonts).
 *
 * The text on a card must read exactly as its data (a clerk types the code
 * printed). resvg shapes text with every default OpenType feature on, and
 * does not honour `font-feature-settings`: Inter's contextual alternates turn
 * `2x9` into `2×9` and `->` into an arrow, JetBrains Mono's draw `!=` and
 * `->` as ligatures. So each face is handed to resvg with its ligature and
 * contextual substitution features emptied (no lookups), once per isolate.
 */
import interBold from "@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf";
import interRegular from "@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf";
import monoBold from "@expo-google-fonts/jetbrains-mono/700Bold/JetBrainsMono_700Bold.ttf";
import { FONT_FAMILY } from "./font-metrics";

/** The GSUB features that replace a run of characters by other glyphs (ligatures, contextual forms). */
const SUBSTITUTIONS_OFF = new Set(["calt", "clig", "dlig", "liga", "rclt", "rlig"]);

const tagAt = (bytes: Uint8Array, offset: number) => String.fromCharCode(...bytes.subarray(offset, offset + 4));

/**
 * A copy of a TrueType/OpenType font whose GSUB features named in
 * SUBSTITUTIONS_OFF apply no lookups: their feature tables' lookup counts are
 * set to 0. The tables, their order and every other feature stay as they were
 * (kerning is positioning, in GPOS: untouched).
 */
function withoutSubstitutions(font: ArrayBuffer | Uint8Array): Uint8Array {
  const bytes = new Uint8Array(font).slice();
  const view = new DataView(bytes.buffer);
  const tableCount = view.getUint16(4);
  for (let i = 0; i < tableCount; i++) {
    const record = 12 + i * 16;
    if (tagAt(bytes, record) !== "GSUB") continue;
    const gsub = view.getUint32(record + 8);
    const featureList = gsub + view.getUint16(gsub + 6);
    const featureCount = view.getUint16(featureList);
    for (let f = 0; f < featureCount; f++) {
      const featureRecord = featureList + 2 + f * 6;
      if (!SUBSTITUTIONS_OFF.has(tagAt(bytes, featureRecord))) continue;
      // A feature table: featureParams (Offset16), then lookupIndexCount.
      view.setUint16(featureList + view.getUint16(featureRecord + 4) + 2, 0);
    }
  }
  return bytes;
}

/**
 * resvg's font options for the card's text: every face it uses, substitutions
 * off (resvg copies them into wasm memory each time), Inter by default.
 */
export const CARD_FONTS = {
  fontBuffers: [interRegular, interBold, monoBold].map(withoutSubstitutions),
  defaultFontFamily: FONT_FAMILY,
  sansSerifFamily: FONT_FAMILY,
};
