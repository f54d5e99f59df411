// Plain DOM; records keyed by Date.now(), as many hand-written todo apps do.
const todos = {};
const root = document.getElementById('app');
root.innerHTML =
  '<section class="todoapp"><h1>todos</h1><input class="new-todo" placeholder="What needs to be done?" aria-label="New todo"><ul class="todo-list"></ul><footer class="footer"></footer></section>';
const input = root.querySelector('.new-todo');
const list = root.querySelector('.todo-list');
const footer = root.querySelector('.footer');
function render() {
  list.textContent = '';
  for (const todo of Object.values(todos)) {
    const li = document.createElement('li');
    li.className = todo.done ? 'completed' : '';
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.className = 'toggle';
    box.checked = todo.done;
    box.setAttribute('aria-label', `Toggle ${todo.title}`);
    box.addEventListener('change', () => {
      todo.done = box.checked;
      li.className = todo.done ? 'completed' : '';
      renderFooter();
    });
    const label = document.createElement('label');
    label.textContent = todo.title;
    li.append(box, label);
    list.append(li);
  }
  renderFooter();
}
function renderFooter() {
  const left = Object.values(todos).filter((t) => !t.done).length;
  footer.textContent = `${left} ${left === 1 ? 'item' : 'items'} left`;
}
input.addEventListener('keydown', (event) => {
  if (event.key !== 'Enter' || !input.value.trim()) return;
  const id = Date.now();
  todos[id] = { id, title: input.value.trim(), done: false };
  input.value = '';
  render();
});
render();
