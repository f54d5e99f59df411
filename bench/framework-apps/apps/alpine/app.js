// Alpine reads its markup from the page (apps/alpine/body.html).
import Alpine from 'alpinejs';

window.Alpine = Alpine;
Alpine.start();
