// qrcode's matrix builder alone: the package's main entry also loads its PNG,
// canvas and terminal renderers (and Node's fs for the PNG one), none needed here.
declare module "qrcode/lib/core/qrcode" {
  export { create } from "qrcode";
}
