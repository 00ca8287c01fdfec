/** Coupon codes the shop accepts, in percent off. */
const COUPONS = { WELCOME10: 10, SPRING25: 25 };

/**
 * The cart total after each coupon of `codes`, in order. An unknown code throws from the nested `discountFor`: an
 * error a few calls deep in a module of its own, whose stack should read back at this source once its map is uploaded.
 */
export function applyCoupons(total, codes) {
  function discountFor(code, rest) {
    const percent = COUPONS[code];
    if (percent === undefined) throw new Error(`Coupon ${code} is not valid`);
    return (rest * percent) / 100;
  }
  return codes.reduce((rest, code) => rest - discountFor(code, rest), total);
}
