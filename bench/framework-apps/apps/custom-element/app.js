// A hand-written custom element: an open shadow root whose styles come from a constructed, adopted sheet.
import todoCss from '../../todo.css';

const sheet = new CSSStyleSheet();
sheet.replaceSync(todoCss);

class TodoElement extends HTMLElement {
  #todos = new Map();
  connectedCallback() {
    const root = this.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = [sheet];
    root.innerHTML =
      '<section class="todoapp"><h1>todos</h1><input class="new-todo" placeholder="What needs to be done?" aria-label="New todo"><ul class="todo-list"></ul><footer class="footer"></footer></section>';
    const input = root.querySelector('.new-todo');
    input.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter' || !input.value.trim()) return;
      const id = Date.now();
      this.#todos.set(id, { title: input.value.trim(), done: false });
      input.value = '';
      this.#render(root);
    });
    this.#render(root);
  }
  #render(root) {
    const list = root.querySelector('.todo-list');
    list.replaceChildren(
      ...[...this.#todos.values()].map((todo) => {
        const li = document.createElement('li');
        li.innerHTML = '<input class="toggle" type="checkbox"><label></label>';
        li.className = todo.done ? 'completed' : '';
        li.querySelector('label').textContent = todo.title;
        const box = li.querySelector('input');
        box.checked = todo.done;
        box.setAttribute('aria-label', `Toggle ${todo.title}`);
        box.addEventListener('change', () => {
          todo.done = box.checked;
          this.#render(root);
        });
        return li;
      }),
    );
    const left = [...this.#todos.values()].filter((t) => !t.done).length;
    root.querySelector('.footer').textContent = `${left} ${left === 1 ? 'item' : 'items'} left`;
  }
}
customElements.define('todo-element', TodoElement);
document.getElementById('app').append(document.createElement('todo-element'));
