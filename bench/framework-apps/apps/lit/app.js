// A Lit element: its markup and its styles (with the transition) live in its shadow root.
import { LitElement, html, css, unsafeCSS } from 'lit';
import todoCss from '../../todo.css';

class TodoApp extends LitElement {
  static properties = { todos: { state: true } };
  static styles = css`
    ${unsafeCSS(todoCss)}
  `;
  constructor() {
    super();
    this.todos = [];
  }
  add(event) {
    const input = event.target;
    if (event.key !== 'Enter' || !input.value.trim()) return;
    this.todos = [...this.todos, { id: Date.now(), title: input.value.trim(), done: false }];
    input.value = '';
  }
  toggle(id) {
    this.todos = this.todos.map((t) => (t.id === id ? { ...t, done: !t.done } : t));
  }
  render() {
    const left = this.todos.filter((t) => !t.done).length;
    return html`<section class="todoapp">
      <h1>todos</h1>
      <input class="new-todo" placeholder="What needs to be done?" aria-label="New todo" @keydown=${this.add} />
      <ul class="todo-list">
        ${this.todos.map(
          (t) =>
            html`<li class=${t.done ? 'completed' : ''}>
              <input class="toggle" type="checkbox" aria-label=${`Toggle ${t.title}`} .checked=${t.done} @change=${() => this.toggle(t.id)} />
              <label>${t.title}</label>
            </li>`,
        )}
      </ul>
      <footer class="footer">${left} ${left === 1 ? 'item' : 'items'} left</footer>
    </section>`;
  }
}
customElements.define('todo-app', TodoApp);
document.getElementById('app').append(document.createElement('todo-app'));
