window.demo = true;
