import { useState } from 'react';
import { createRoot } from 'react-dom/client';

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
    <section className="todoapp">
      <h1>todos</h1>
      <input className="new-todo" placeholder="What needs to be done?" aria-label="New todo" value={text} onChange={(e) => setText(e.target.value)} onKeyDown={add} />
      <ul className="todo-list">
        {todos.map((t) => (
          <li key={t.id} className={t.done ? 'completed' : ''}>
            <input className="toggle" type="checkbox" aria-label={`Toggle ${t.title}`} checked={t.done} onChange={() => toggle(t.id)} />
            <label>{t.title}</label>
          </li>
        ))}
      </ul>
      <footer className="footer">{`${left} ${left === 1 ? 'item' : 'items'} left`}</footer>
    </section>
  );
}
createRoot(document.getElementById('app')).render(<App />);
