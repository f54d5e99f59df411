import { h, render } from 'preact';
import { useState } from 'preact/hooks';

function App() {
  const [todos, setTodos] = useState([]);
  const [text, setText] = useState('');
  const add = (event) => {
    if (event.key !== 'Enter' || !text.trim()) return;
    setTodos((list) => [...list, { id: Date.now(), title: text.trim(), done: false }]);
    setText('');
  };
  const toggle = (id) => setTodos((list) => list.map((t) => (t.id === id ? { ...t, done: !t.done } : t)));
  const left = todos.filter((t) => !t.done).length;
  return (
    <section class="todoapp">
      <h1>todos</h1>
      <input class="new-todo" placeholder="What needs to be done?" aria-label="New todo" value={text} onInput={(e) => setText(e.currentTarget.value)} onKeyDown={add} />
      <ul class="todo-list">
        {todos.map((t) => (
          <li key={t.id} class={t.done ? 'completed' : ''}>
            <input class="toggle" type="checkbox" aria-label={`Toggle ${t.title}`} checked={t.done} onChange={() => toggle(t.id)} />
            <label>{t.title}</label>
          </li>
        ))}
      </ul>
      <footer class="footer">{`${left} ${left === 1 ? 'item' : 'items'} left`}</footer>
    </section>
  );
}
render(<App />, document.getElementById('app'));
