/**
 * Driver of workload `form-flow` (page: bench/overhead/page/workloads/form-flow.ts): 3 passes through the four steps.
 * On each step it fills the fields as a person does, clicking each text field and typing a short value (about 8 key
 * presses), picking an option of each select with the keyboard, ticking each checkbox, then clicks "Continue" (a JSON
 * POST). On the payment step the first coupon is refused (`EXPIRED`) and retyped. After the last step, "Start over".
 */
import { STEPS } from '../page/workloads/form-flow';
import { KEY_DELAY_MS, type DriveWorkload } from './drive';

const FLOWS = 3;

export const driveFormFlow: DriveWorkload = async (page, click) => {
  const type = (text: string) => page.keyboard.type(text, { delay: KEY_DELAY_MS });
  for (let flow = 1; flow <= FLOWS; flow++) {
    for (const { fields } of STEPS) {
      for (const field of fields) {
        await click(field.name);
        if (field.type === 'select') await page.keyboard.press('ArrowDown');
        else if (field.type !== 'checkbox')
          await type(field.name === 'coupon' ? 'EXPIRED' : `${field.name.slice(0, 5)}${flow}`);
      }
      if (fields.some((field) => field.name === 'coupon')) {
        await click('continue');
        await click('coupon');
        await page.keyboard.press('Control+A');
        await type('SAVE10');
      }
      await click('continue');
    }
    await click('continue');
  }
};
