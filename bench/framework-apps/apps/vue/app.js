// Vue 3 with its template compiler in the page (the full build), as a CDN-style app is written.
import { createApp } from 'vue/dist/vue.esm-bundler.js';

createApp({
  data: () => ({ todos: [], text: '' }),
  computed: {
    left() {
      return this.todos.filter((t) => !t.done).length;
    },
  },
  methods: {
    add() {
      if (!this.text.trim()) return;
      this.todos.push({ id: Date.now(), title: this.text.trim(), done: false });
      this.text = '';
    },
  },
  template: `
    <section class="todoapp">
      <h1>todos</h1>
      <input class="new-todo" placeholder="What needs to be done?" aria-label="New todo" v-model="text" @keydown.enter="add">
      <ul class="todo-list">
        <li v-for="t in todos" :key="t.id" :class="{ completed: t.done }">
          <input class="toggle" type="checkbox" :aria-label="'Toggle ' + t.title" v-model="t.done">
          <label>{{ t.title }}</label>
        </li>
      </ul>
      <footer class="footer">{{ left }} {{ left === 1 ? 'item' : 'items' }} left</footer>
    </section>`,
}).mount('#app');
