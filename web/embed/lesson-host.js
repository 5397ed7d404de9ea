// The element's lesson step (lesson, step attributes): the page's stepContent (web/src/lesson/
// stepper.js) drawn in the element, whose "try" buttons set its attributes: a text, or the
// bundled decoder's patching example (the patching step's button; the page opens it from its
// example list, web/src/panels/examples.js, whose other entries the element has no use for) as model,
// text, view and the Patching view's parameters. A chunk of its own: only an element that shows a
// lesson step fetches it.
import { stepContent } from '../src/lesson/stepper.js';
import { PATCHING_EXAMPLE } from '../src/model/patch-suggest.js';
import { BUNDLED_CAUSAL_MODEL } from '../../js/api/bundled-models.js';
import { VIEW } from '../src/views/registry.js';

/**
 * @param app the element's view model
 * @param parts { stepTitle, body, figure, root }
 * @param {HTMLElement} element the <attn-scope> whose attributes the buttons set
 */
export function elementLessonStep(app, parts, element) {
  const examples = {
    patching: { model: BUNDLED_CAUSAL_MODEL, text: PATCHING_EXAMPLE.clean, view: VIEW.patching,
      corrupted: PATCHING_EXAMPLE.corrupted, answer: PATCHING_EXAMPLE.answer, wrong: PATCHING_EXAMPLE.wrong },
  };
  const openExample = (id) => {
    for (const [name, value] of Object.entries(examples[id] ?? {})) element.setAttribute(name, value);
  };
  return stepContent(app, { ...parts, tryText: (text) => element.setAttribute('text', text), openExample });
}
