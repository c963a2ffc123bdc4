/**
 * "Your own model": open a model folder from disk — a directory input (`webkitdirectory`) or a folder dropped on the
 * picker — in the Hugging Face layout (model-folder.ts), choose its dtype among the onnx/ files it has, and hand it to
 * the page (main.ts loads it as the page's model: the explorer and the Inference panel then run on it). Nothing is
 * uploaded: the File objects go to the model worker, which reads the chosen files only.
 */
import type { Dtype } from '../../../pipeline/core/lm/dtypes.ts';
import { folderDtypes, folderFiles, folderProblem, pickDtype, type FolderFile } from '../model-folder.ts';
import { h } from './dom.ts';

export interface OpenedFolder {
  name: string;
  files: FolderFile[];
  dtype: Dtype;
}

/** Mounts the picker into `root`; `onOpen` is called for each folder opened or dtype chosen. `wanted`: ?dtype=. */
export function mountModelPicker(root: HTMLElement, wanted: Dtype | null, onOpen: (folder: OpenedFolder) => void): void {
  const input = h('input', { type: 'file', id: 'model-folder', 'data-testid': 'model-folder', webkitdirectory: true, multiple: true });
  const dtypeSelect = h('select', { id: 'model-dtype', 'data-testid': 'model-dtype', disabled: true, 'aria-label': 'dtype of the opened folder' });
  const note = h('span', { class: 'muted', 'data-testid': 'model-folder-note' }, 'or drop a model folder here');
  const zone = h('div', { class: 'model-picker', 'data-testid': 'model-drop' },
    h('label', { class: 'inline', for: 'model-folder' }, 'Your own model (a Hugging Face ONNX folder):', input),
    h('label', { class: 'inline', for: 'model-dtype' }, 'dtype', dtypeSelect),
    note);
  root.append(zone);
  let opened: { name: string; files: FolderFile[] } | null = null;

  const open = (entries: { relativePath: string; file: File }[]) => {
    const folder = folderFiles(entries);
    const paths = folder.files.map((f) => f.path);
    const problem = folderProblem(folder.name, paths);
    note.classList.toggle('error', problem !== null);
    if (problem) {
      note.textContent = problem;
      return;
    }
    const dtypes = folderDtypes(paths);
    const dtype = pickDtype(dtypes, wanted)!;
    opened = folder;
    dtypeSelect.replaceChildren(...dtypes.map((d) => h('option', { value: d, selected: d === dtype }, d)));
    dtypeSelect.disabled = dtypes.length < 2;
    note.textContent = `${folder.name}: ${folder.files.length} files, dtypes ${dtypes.join(', ')}`;
    onOpen({ ...folder, dtype });
  };

  input.addEventListener('change', () => {
    const files = [...(input.files ?? [])];
    if (files.length > 0) open(files.map((file) => ({ relativePath: file.webkitRelativePath || file.name, file })));
  });
  dtypeSelect.addEventListener('change', () => {
    if (opened) onOpen({ ...opened, dtype: dtypeSelect.value as Dtype });
  });
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('dragging');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('dragging');
    if (!e.dataTransfer) return;
    droppedFiles(e.dataTransfer.items).then((entries) => open(entries), (err: unknown) => {
      note.textContent = `could not read the dropped folder: ${err instanceof Error ? err.message : String(err)}`;
      note.classList.add('error');
    });
  });
}

/**
 * The files of a dropped folder (DataTransferItem.webkitGetAsEntry), with the paths a directory input would give.
 * Resolves to [] when the drop holds no folder or file entries.
 */
async function droppedFiles(items: DataTransferItemList): Promise<{ relativePath: string; file: File }[]> {
  const out: { relativePath: string; file: File }[] = [];
  const walk = async (entry: FileSystemEntry, path: string): Promise<void> => {
    if (entry.isFile) {
      const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
      out.push({ relativePath: `${path}${entry.name}`, file });
      return;
    }
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    // readEntries returns the listing in batches (100 in Chromium) until an empty one.
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
      if (batch.length === 0) break;
      for (const child of batch) await walk(child, `${path}${entry.name}/`);
    }
  };
  const entries = [...items].map((i) => i.webkitGetAsEntry()).filter((e): e is FileSystemEntry => e !== null);
  for (const entry of entries) await walk(entry, '');
  return out;
}
