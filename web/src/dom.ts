/**
 * The only way the UI makes DOM: `h(tag, props, ...children)`. Strings become text nodes, never
 * markup, so captured sample text (which may hold `<script>`) is inert by construction. There is
 * no innerHTML anywhere in web/ (e2e/no-html-sinks.test.ts checks it).
 */
export type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  title?: string;
  id?: string;
  type?: string;
  value?: string;
  placeholder?: string;
  href?: string;
  disabled?: boolean;
  selected?: boolean;
  checked?: boolean;
  /** data-* attributes (test hooks and state). */
  data?: Record<string, string>;
  /** Accessible name. */
  label?: string;
  role?: string;
  on?: Partial<{ [K in keyof HTMLElementEventMap]: (e: HTMLElementEventMap[K]) => void }>;
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props) {
    if (props.class) el.className = props.class;
    if (props.title) el.title = props.title;
    if (props.id) el.id = props.id;
    if (props.role) el.setAttribute('role', props.role);
    if (props.label) el.setAttribute('aria-label', props.label);
    if (props.type !== undefined) el.setAttribute('type', props.type);
    if (props.placeholder !== undefined) el.setAttribute('placeholder', props.placeholder);
    if (props.href !== undefined) el.setAttribute('href', props.href);
    if (props.disabled) el.setAttribute('disabled', '');
    if (props.selected && el instanceof HTMLOptionElement) el.selected = true;
    if (props.checked && el instanceof HTMLInputElement) el.checked = true;
    for (const [k, v] of Object.entries(props.data ?? {})) el.dataset[k] = v;
    for (const [name, fn] of Object.entries(props.on ?? {})) el.addEventListener(name, fn as EventListener);
  }
  append(el, children);
  // After the children: a <select>'s value needs its options.
  if (props?.value !== undefined && 'value' in el) (el as HTMLInputElement).value = props.value;
  return el;
}

/** A form whose submit runs `onSubmit` instead of navigating. */
export function form(cls: string, onSubmit: () => void, ...children: Child[]): HTMLFormElement {
  return h('form', { class: cls, on: { submit: (e) => (e.preventDefault(), onSubmit()) } }, ...children);
}

export function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** Replaces an element's children. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}
