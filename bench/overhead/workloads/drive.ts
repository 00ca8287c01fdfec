/** What a workload's driver is: the input it plays on its page, the same for every variant. */
import type { Page } from '@playwright/test';
import type { ClickControl } from '../run';

export type DriveWorkload = (page: Page, click: ClickControl) => Promise<void>;

/** Delay between key presses, ms: a fast typist (each key press also costs Chromium's text editing, SDK or not). */
export const KEY_DELAY_MS = 15;
