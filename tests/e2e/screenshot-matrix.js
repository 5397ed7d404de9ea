// The screenshot scripts' common frame (tests/e2e/*-screenshots.mjs): one static server and one
// browser; for each size (desktop 1280×800, phone 390×844) and language (en, ko) a visit that
// opens guarded pages (console errors and uncaught exceptions collected); every page a visit
// opened is closed after it, and its problems are returned labelled `lang-size`.
import { guardedPage, launchBrowser, startServer } from './helpers.js';

export const SCREEN_SIZES = Object.freeze({ desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } });
export const LANGUAGES = Object.freeze(['en', 'ko']);

/**
 * visit({ size, viewport, lang, origin, newPage }) for each size and language, where newPage()
 * resolves to guardedPage's {page, context, problems} at that size. Resolves to the problems.
 */
export async function forEachScreen(visit, { sizes = SCREEN_SIZES, languages = LANGUAGES } = {}) {
  const server = await startServer();
  const browser = await launchBrowser();
  const problems = [];
  try {
    for (const [size, viewport] of Object.entries(sizes)) {
      for (const lang of languages) {
        const opened = [];
        const newPage = async () => {
          const g = await guardedPage(browser, server.origin, viewport);
          opened.push(g);
          return g;
        };
        try {
          await visit({ size, viewport, lang, origin: server.origin, newPage });
        } finally {
          for (const g of opened) {
            problems.push(...g.problems.map((p) => `${lang}-${size}: ${p}`));
            await g.context.close().catch(() => {});
          }
        }
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return problems;
}
